/**
 * Runs `fn` after the browser's next frame. A view that draws in an animation frame (Monaco draws its
 * lines in one after it mounts or its text is set) has drawn by then: a stand-in shown until it is
 * ready (the plain YAML text) can go without a blank frame between the two.
 */
export function afterNextFrame(fn: () => void): void {
  requestAnimationFrame(() => requestAnimationFrame(fn));
}
