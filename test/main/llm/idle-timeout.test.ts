// The requests' inactivity timeout (main/llm/idle-timeout.ts): unset, a model's request (and the
// remote endpoint's) may stay silent 600 s — the default README's settings table gives — then
// ends as timed out, naming the setting; anything heard starts the silence again.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_MODEL_TIMEOUT_MS, watchIdle } from "../../../main/llm/idle-timeout.ts";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("watchIdle", () => {
  it("unset: 600 s of silence, then timed out with the model's setting named", () => {
    expect(DEFAULT_MODEL_TIMEOUT_MS).toBe(600_000);
    const idle = watchIdle(new AbortController().signal);
    vi.advanceTimersByTime(599_999);
    expect(idle.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(idle.signal.aborted).toBe(true);
    expect(idle.timedOut()).toBe(true);
    expect(idle.message()).toBe("Request timed out: the model sent nothing for 600 s (setting model.timeoutSeconds)");
    idle.dispose();
  });

  it("what is heard starts the silence again; a stall after it is said as one", () => {
    const idle = watchIdle(new AbortController().signal, 2000);
    vi.advanceTimersByTime(1500);
    idle.touch(true);
    vi.advanceTimersByTime(1500);
    expect(idle.signal.aborted).toBe(false);
    vi.advanceTimersByTime(500);
    expect(idle.message()).toBe(
      "Request timed out: the model's reply stalled, nothing more came for 2 s (setting model.timeoutSeconds)",
    );
    idle.dispose();
  });

  it("a cancel is no timeout", () => {
    const controller = new AbortController();
    const idle = watchIdle(controller.signal, 2000);
    controller.abort();
    expect(idle.signal.aborted).toBe(true);
    expect(idle.timedOut()).toBe(false);
    idle.dispose();
  });
});
