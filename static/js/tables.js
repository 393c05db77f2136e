// Wide tables scroll inside their box: mark the ones that do, so the page shows a hint.
// Progressive enhancement: without script the edge shadow (CSS) is the cue.
const markOverflowing = () => {
  document.querySelectorAll(".table-wrap").forEach((wrap) => {
    wrap.classList.toggle("overflowing", wrap.scrollWidth > wrap.clientWidth + 1);
  });
};
markOverflowing();
window.addEventListener("resize", markOverflowing);
