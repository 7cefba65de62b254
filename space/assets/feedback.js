// Feedback where the user looks (space/page.py puts this in the page's <head>, after
// window.ROUGE_SPACE = {uploadLimit, uploadLimitText, cli}).
(() => {
  // each upload box's results panel, and the local command for its files
  const BOXES = {
    'corpus-file': ['corpus', '--input'], 'pred-file': ['corpus', ''],
    'ref-files': ['corpus', ''], 'systems-file': ['compare', '--compare'],
    'system-files': ['compare', '--compare'], 'compare-ref-files': ['compare', '--references'],
  };
  const escape = s => s.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);

  // in view as the browser test's contract has it: the panel's top is in the viewport and
  // either the whole panel is, or its top is near the viewport's top (a panel taller than the
  // viewport). A check of the top alone left a panel whose top showed and whose bottom was
  // cut off, as a click or Chrome's scroll anchoring had left the page (a phone, under load)
  const inView = box => box.top >= 0 && box.top < innerHeight &&
    (box.bottom <= innerHeight || box.top <= 100);
  // the results panel (or an error in it) into view, when it is not already: on a phone the
  // results are below the inputs (a panel in a hidden tab has an empty box: in view, no scroll)
  const show = selector => {
    const el = document.querySelector(selector);
    if (!el || inView(el.getBoundingClientRect())) return;
    el.scrollIntoView({block: 'start', behavior: 'instant'});
    // a top at a fraction of a pixel (819.95) gets a whole-pixel scroll (820): its top was
    // then -0.05, not in view; a pixel back
    const top = el.getBoundingClientRect().top;
    if (top < 0 && top > -1) window.scrollBy(0, -1);
  };
  // now, and again as the page settles (Gradio renders a result a moment after it comes; on a
  // busy machine or a slow phone, seconds after); a later call replaces the pending re-shows
  let timers = [];
  const stop = () => { timers.forEach(clearTimeout); timers = []; };
  window.rougeShow = selector => {
    stop();
    show(selector);
    timers = [60, 250, 700, 1500, 3000, 5000].map(ms => setTimeout(() => show(selector), ms));
  };
  // the user's own scrolling (wheel, touch, keys) or a press elsewhere ends the re-shows, so
  // that they do not pull the user back (nor move a menu the user opened: Gradio's dropdown
  // list is position: fixed, placed from its input, and stayed off screen); programmatic
  // scrolls (ours, Gradio's) fire none of these events, and isTrusted skips events that
  // scripts dispatch. The press or key that starts an action comes before its rougeShow, and
  // a result that comes later is shown once more
  for (const type of ['wheel', 'touchstart', 'touchmove', 'keydown', 'pointerdown'])
    addEventListener(type, event => { if (event.isTrusted) stop(); },
                     {capture: true, passive: true});

  // a file over the Space's limit is refused here, before Gradio uploads it (Gradio would
  // only show a passing toast): the error goes in the tab's results panel, naming the limit
  const refuse = (box, files) => {
    const config = window.ROUGE_SPACE || {};
    const big = [...files].filter(f => f.size > config.uploadLimit);
    if (!big.length) return false;
    const [tab, flag] = BOXES[box];
    const results = document.getElementById(`${tab}-results`);
    document.querySelectorAll(`#${tab}-upload-error`).forEach(e => e.remove());
    const file = big[0];
    const panel = document.createElement('div');
    panel.className = 'error-panel upload-error';
    panel.id = `${tab}-upload-error`;
    panel.setAttribute('role', 'alert');
    const command = `${config.cli} ${flag ? flag + ' ' : ''}${file.name}`;
    panel.innerHTML = `<b>Over the Space's limit</b><p>${escape(file.name)}: got ` +
      `${(file.size / 2 ** 20).toFixed(1)} MB; the Space's limit is ` +
      `${escape(config.uploadLimitText)} per file. Run it on your machine with no limit: ` +
      `<code class="command">${escape(command)}</code></p>`;
    results.parentElement.insertBefore(panel, results);
    document.body.classList.add(`${tab}-stale`);
    window.rougeShow(`#${tab}-upload-error`);
    return true;
  };
  const boxOf = el => {
    for (let a = el; a; a = a.parentElement) if (a.id in BOXES) return a.id;
    return null;
  };
  document.addEventListener('change', event => {
    const input = event.target;
    const box = input instanceof HTMLInputElement && input.type === 'file' && boxOf(input);
    if (!box) return;
    if (refuse(box, input.files)) {
      event.stopImmediatePropagation();
      input.value = '';
    } else {
      document.querySelectorAll(`#${BOXES[box][0]}-upload-error`).forEach(e => e.remove());
    }
  }, true);
  document.addEventListener('drop', event => {
    const box = boxOf(event.target);
    if (box && event.dataTransfer && refuse(box, event.dataTransfer.files)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);
})();
