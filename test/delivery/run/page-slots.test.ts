import { describe, expect, it } from "vitest";
import { JobFailure } from "../../../src/delivery/job-state";
import { pageSlotsInUse, takePageSlot } from "../../../src/delivery/run/page-slots";

const soon = (ms: number) => Date.now() + ms;

describe("page slots: pages ahead of the capture station", () => {
  it("lets `limit` pages render at once; the next waits until one is given back, first come first served", async () => {
    const first = await takePageSlot(2, soon(5_000));
    const second = await takePageSlot(2, soon(5_000));
    const order: string[] = [];
    const third = takePageSlot(2, soon(5_000)).then((slot) => {
      order.push("third");
      return slot;
    });
    const fourth = takePageSlot(2, soon(5_000)).then((slot) => {
      order.push("fourth");
      return slot;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(order).toEqual([]); // both slots held: nobody else renders
    expect(pageSlotsInUse()).toEqual({ held: 2, waiting: 2 });
    first.release();
    first.release(); // giving back twice frees one slot, not two
    const thirdSlot = await third;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(order).toEqual(["third"]);
    second.release();
    const fourthSlot = await fourth;
    expect(order).toEqual(["third", "fourth"]);
    thirdSlot.release();
    fourthSlot.release();
    expect(pageSlotsInUse()).toEqual({ held: 0, waiting: 0 });
  });

  it("fails the attempt (retried) when no slot frees before its deadline, and leaves the line", async () => {
    const holder = await takePageSlot(1, soon(5_000));
    const started = Date.now();
    const failure = await takePageSlot(1, soon(300)).catch((error) => error);
    expect(failure).toBeInstanceOf(JobFailure);
    expect(failure).toMatchObject({ reason: "render_failed", final: false });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(pageSlotsInUse()).toEqual({ held: 1, waiting: 0 });
    // Control: once the slot is back, the next call gets it at once.
    holder.release();
    const next = await takePageSlot(1, soon(300));
    expect(pageSlotsInUse().held).toBe(1);
    next.release();
  });

  it("takes back a slot its holder never gave back, once the holder's deadline (and a grace) has passed", async () => {
    await takePageSlot(1, Date.now() - 5_000); // held past its deadline and the grace: as if its invocation had ended
    const slot = await takePageSlot(1, soon(1_000));
    expect(pageSlotsInUse()).toEqual({ held: 1, waiting: 0 });
    slot.release();
  });
});
