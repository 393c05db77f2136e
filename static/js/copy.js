// "Copy" buttons: progressive enhancement; the text stays selectable without script.
document.querySelectorAll("button.copy[data-copy]").forEach((button) => {
  const source = document.getElementById(button.dataset.copy);
  if (!source || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener("click", async () => {
    await navigator.clipboard.writeText(source.textContent);
    button.textContent = "Copied";
    setTimeout(() => { button.textContent = "Copy citation"; }, 2000);
  });
});
