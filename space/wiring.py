"""How app.py connects components to handlers: ``bind`` calls a handler by parameter name, and
``mark_stale`` marks results stale in the browser when the user edits an input."""

import inspect
import json

import gradio as gr


def _components(field) -> list:
    if isinstance(field, dict):
        return [c for value in field.values() for c in _components(value)]
    if isinstance(field, (list, tuple)):
        return [c for value in field for c in _components(value)]
    return [field]


def _value(field, values: dict):
    if isinstance(field, dict):
        return {name: _value(value, values) for name, value in field.items()}
    if isinstance(field, (list, tuple)):
        return [_value(value, values) for value in field]
    return values[field]


def bind(handler, **fields) -> tuple:
    """(fn, inputs) for a Gradio event that calls ``handler`` with keyword arguments: each
    field is a component (the argument is its value), a list of components (the list of their
    values) or a dict of components (the dict of their values, by the same keys).

    Gradio is given the components as a set, so it passes their values as one dict keyed by
    component: no handler depends on the order of its inputs. ``fn`` stays a generator for a
    generator handler (Gradio streams its updates), and takes Gradio's progress tracker when
    the handler has a ``progress`` parameter."""
    inputs = set(_components(fields))

    def arguments(values: dict) -> dict:
        return {name: _value(field, values) for name, field in fields.items()}

    if inspect.isgeneratorfunction(handler):
        def fn(values):
            yield from handler(**arguments(values))
    elif "progress" in inspect.signature(handler).parameters:
        # Gradio fills a parameter whose default is a gr.Progress with the event's tracker
        def fn(values, progress=gr.Progress()):  # noqa: B008 - Gradio's way to ask for it
            return handler(**arguments(values), progress=progress)
    else:
        def fn(values):
            return handler(**arguments(values))
    # not functools.wraps: Gradio would read the handler's signature through __wrapped__
    fn.__name__, fn.__doc__ = handler.__name__, handler.__doc__
    return fn, inputs


def mark_stale(controls: list, *tabs: str) -> None:
    """Mark the tabs' results stale (a browser-side class, no server round trip) when the
    user edits one of the controls (input and upload events: a value the app sets does not)."""
    js = ("() => { %s.forEach(t => document.body.classList.add(t + '-stale')); }"
          % json.dumps(list(tabs)))
    for control in controls:
        if isinstance(control, gr.File):
            events = [control.upload, control.clear]
        elif isinstance(control, (gr.Button, gr.Dataset)):
            events = [control.click]
        elif isinstance(control, gr.Dropdown):
            # a choice made, not focus: Tab through the menu fires its input event on blur
            events = [control.select]
        elif isinstance(control, gr.Slider):
            events = [control.release, control.input]
        else:
            events = [control.input]
        for event in events:
            event(None, None, None, js=js, queue=False)
