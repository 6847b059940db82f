// The trace viewer's keys: ← → step, + − zoom, Home End. Each follows a link the page already
// has, so the viewer works without script too; served from the dashboard (the CSP allows no
// inline script).
document.addEventListener('keydown', (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
  const zoomed = document.querySelector('.viewer.zoomed') !== null;
  const ids = {
    ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last',
    '+': zoomed ? null : 'zoom', '=': zoomed ? null : 'zoom', '-': zoomed ? 'zoom' : null,
  };
  const id = ids[e.key];
  const link = id && document.getElementById(id);
  if (link) {
    e.preventDefault();
    window.location.assign(link.href);
  }
});
