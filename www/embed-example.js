// Fits each iframe of the explorer to the height it posts:
// {type: 'rvalue-explorer:height', height, panel}, sent on load and whenever it changes.
window.addEventListener('message', (event) => {
  const msg = event.data;
  if (!msg || msg.type !== 'rvalue-explorer:height' || !(msg.height > 0)) return;
  for (const frame of document.querySelectorAll('iframe')) {
    if (frame.contentWindow === event.source) {
      frame.style.height = `${Math.ceil(msg.height)}px`;
      frame.dataset.panel = msg.panel;
    }
  }
});
