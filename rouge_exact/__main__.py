"""``python -m rouge_exact``: the ``rouge-exact`` command."""

if __name__ == "__main__":
    import signal

    # a Ctrl-C while the command's modules import is remembered, and console() answers it
    # (one line, exit status 130) as soon as it starts
    _early: list = []
    signal.signal(signal.SIGINT, lambda signum, frame: _early.append(signum))
    from .cli.main import console

    console(early=bool(_early))
