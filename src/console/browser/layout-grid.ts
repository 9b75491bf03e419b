import { el, fill } from "./dom";
import type { Layout, Panel } from "./state";

// The panels on the 12-column grid (docs/console.md): each a focusable `role="group"` named
// by its title; arrows move the focused one, Shift+arrows resize it; the mouse moves it by its
// header and resizes it by its corner. A panel moved or grown onto another pushes that one
// down, so panels never overlap. What changes is the definition's `layout`.

const COLUMNS = 12;
const MAX_Y = 500;
const MAX_H = 40;

const overlaps = (a: Layout, b: Layout) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** Pushes down every panel the moved one (and each pushed one in turn) lands on. */
export function settle(panels: Panel[], moved: number): void {
  const queue = [moved];
  for (let guard = 0; queue.length > 0 && guard < 10_000; guard++) {
    const a = panels[queue.shift() as number].layout;
    panels.forEach((panel, index) => {
      // The panel moved stays where it was put; a pushed one lands below its pusher.
      if (index === moved || panel.layout === a || !overlaps(a, panel.layout)) return;
      panel.layout = { ...panel.layout, y: Math.min(MAX_Y, a.y + a.h) };
      queue.push(index);
    });
  }
}

/** A layout kept on the grid: inside the 12 columns, within the rows and sizes the definition allows. */
export function clamp(layout: Layout): Layout {
  const w = Math.max(1, Math.min(COLUMNS, layout.w));
  return {
    w,
    x: Math.max(0, Math.min(COLUMNS - w, layout.x)),
    y: Math.max(0, Math.min(MAX_Y, layout.y)),
    h: Math.max(1, Math.min(MAX_H, layout.h)),
  };
}

const KEYS: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

export interface GridHooks {
  /** A panel's layout changed (the definition's `layout` already follows). */
  changed(index: number): void;
  select(index: number): void;
}

export function layoutGrid(panels: Panel[], initiallySelected: number, hooks: GridHooks): HTMLElement {
  let selected = initiallySelected;
  const grid = el("div", { class: "grid", role: "region", "aria-label": "Layout" });
  const help = el("p", {
    class: "note",
    id: "layout-help",
    text: "Focus a panel: arrow keys move it, Shift+arrow keys resize it; or drag its header to move it and its corner to resize it.",
  });
  const live = el("p", { class: "note", "aria-live": "polite" });

  const apply = (index: number, next: Layout) => {
    panels[index].layout = clamp(next);
    settle(panels, index);
    const l = panels[index].layout;
    live.textContent = `${panels[index].title ?? panels[index].id}: column ${l.x + 1}, row ${l.y + 1}, ${l.w} wide, ${l.h} high`;
    hooks.changed(index);
  };

  const draw = (focus?: number) => {
    fill(
      grid,
      ...panels.map((panel, index) => {
        const l = panel.layout;
        const name = panel.title?.trim() || panel.id;
        const cell = el("div", {
          class: "cell",
          role: "group",
          tabindex: 0,
          "aria-label": name,
          "aria-describedby": "layout-help",
          "aria-current": index === selected ? "true" : undefined,
          "data-panel-id": panel.id,
          style: `grid-column:${l.x + 1} / span ${l.w};grid-row:${l.y + 1} / span ${l.h}`,
        });
        const head = el("div", { class: "head", text: name, "aria-hidden": "true" });
        const corner = el("div", { class: "size", "aria-hidden": "true" });
        cell.append(head, el("div", { class: "where", "aria-hidden": "true", text: `${panel.type} · ${l.w}×${l.h}` }), corner);
        cell.addEventListener("focus", () => {
          if (selected === index) return;
          selected = index;
          for (const [i, other] of [...grid.children].entries()) other.setAttribute("aria-current", String(i === index));
          hooks.select(index);
        });
        cell.addEventListener("keydown", (event) => {
          const step = KEYS[event.key];
          if (!step) return;
          event.preventDefault();
          const [dx, dy] = step;
          const now = panels[index].layout;
          apply(index, event.shiftKey ? { ...now, w: now.w + dx, h: now.h + dy } : { ...now, x: now.x + dx, y: now.y + dy });
          draw(index);
        });
        const drag = (mode: "move" | "resize") => (event: PointerEvent) => {
          event.preventDefault();
          const box = grid.getBoundingClientRect();
          const column = (box.width - 8) / COLUMNS;
          const row = 40; // grid-auto-rows 36px + the 4px gap (style.ts)
          const start = { x: event.clientX, y: event.clientY, layout: { ...panels[index].layout } };
          const target = event.currentTarget as HTMLElement;
          target.setPointerCapture?.(event.pointerId);
          let last = "";
          const moveTo = (e: PointerEvent) => {
            const dx = Math.round((e.clientX - start.x) / column);
            const dy = Math.round((e.clientY - start.y) / row);
            const next =
              mode === "move"
                ? { ...start.layout, x: start.layout.x + dx, y: start.layout.y + dy }
                : { ...start.layout, w: start.layout.w + dx, h: start.layout.h + dy };
            const key = JSON.stringify(clamp(next));
            if (key === last) return;
            last = key;
            const element = grid.children[index] as HTMLElement;
            const l = clamp(next);
            element.style.gridColumn = `${l.x + 1} / span ${l.w}`;
            element.style.gridRow = `${l.y + 1} / span ${l.h}`;
          };
          const end = (e: PointerEvent) => {
            target.removeEventListener("pointermove", moveTo);
            target.removeEventListener("pointerup", end);
            const dx = Math.round((e.clientX - start.x) / column);
            const dy = Math.round((e.clientY - start.y) / row);
            if (dx === 0 && dy === 0) return;
            apply(
              index,
              mode === "move"
                ? { ...start.layout, x: start.layout.x + dx, y: start.layout.y + dy }
                : { ...start.layout, w: start.layout.w + dx, h: start.layout.h + dy },
            );
            draw(index);
          };
          target.addEventListener("pointermove", moveTo);
          target.addEventListener("pointerup", end);
        };
        head.addEventListener("pointerdown", drag("move"));
        corner.addEventListener("pointerdown", drag("resize"));
        return cell;
      }),
    );
    if (focus !== undefined) (grid.children[focus] as HTMLElement | undefined)?.focus();
  };
  draw();
  return el("div", {}, [help, grid, live]);
}
