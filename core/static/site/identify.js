// The identify form works without this script; with it, questions left at "can't tell" stay
// out of the address, so the permalink holds the answers only.
document.querySelectorAll("form.identify").forEach((form) => {
  form.addEventListener("submit", () => {
    form.querySelectorAll('input[type="radio"][value=""]:checked').forEach((input) => {
      input.disabled = true;
    });
  });
});
// Coming back to the page (the browser's back button) finds every choice usable again.
window.addEventListener("pageshow", () => {
  document.querySelectorAll("form.identify input:disabled").forEach((input) => {
    input.disabled = false;
  });
});
