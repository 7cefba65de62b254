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

  // the results panel (or an error in it) into view, when it is not already: on a phone the
  // results are below the inputs
  const show = selector => {
    const el = document.querySelector(selector);
    if (!el) return;
    const box = el.getBoundingClientRect();
    if (box.top < 0 || box.top > window.innerHeight - 96)
      el.scrollIntoView({block: 'start', behavior: 'instant'});
  };
  // now, and again as the page settles (Gradio renders a result a moment after it comes; on a
  // busy machine or a slow phone, seconds after): show() scrolls only when it is out of view
  window.rougeShow = selector => {
    show(selector);
    for (const ms of [60, 250, 700, 1500, 3000, 5000]) setTimeout(() => show(selector), ms);
  };

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
