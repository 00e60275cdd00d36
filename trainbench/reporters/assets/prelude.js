window.__tbChartsDrawn = 0;
window.__tbChartErrors = 0;
window.__tbErrorMessages = [];
window.addEventListener('error', function (e) {
  window.__tbChartErrors += 1;
  window.__tbErrorMessages.push(String(e.message));
});
