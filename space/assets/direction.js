// Inputs and highlights follow the text's direction (Arabic, Hebrew ... right to left).
(() => {
  const mark = () => document.querySelectorAll('textarea, input[type=text]').forEach(el => {
    if (el.getAttribute('dir') !== 'auto') el.setAttribute('dir', 'auto'); });
  new MutationObserver(mark).observe(document.documentElement,
    {childList: true, subtree: true, attributes: true, attributeFilter: ['dir']});
  document.addEventListener('DOMContentLoaded', mark);
})();
