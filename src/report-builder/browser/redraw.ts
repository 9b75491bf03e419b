import { run } from "./result";

// The controls are drawn by controls.ts, and the sections it draws (filters.ts, saved.ts) ask
// for a redraw after a change: they call it here, where controls.ts registers itself, so no
// two files of the page import each other.

let draw: () => void = () => undefined;

/** Called once by controls.ts with the function that draws every control. */
export function drawControlsWith(render: () => void): void {
  draw = render;
}

/** Draws every control again (focus kept by the drawing itself). */
export function renderControls(): void {
  draw();
}

/** A choice changed: the controls drawn again and the query run. */
export function changed(): void {
  draw();
  run();
}

/** Whether the checkbox an event came from is checked. */
export const isChecked = (event: Event) => (event.target as HTMLInputElement).checked;
