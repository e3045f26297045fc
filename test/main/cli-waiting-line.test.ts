// The CLI's waiting line counts whole seconds from a once-a-second timer. Node's timers run on
// the event loop's cached clock, so a tick may come a few milliseconds before the second is
// full by performance.now(); the count must not read one less (CI saw "0 s" on the first tick).
import { describe, expect, it } from "vitest";
import { waitingLine } from "../../main/cli/pipeline-commands.ts";

describe("the waiting line", () => {
  it("counts a tick that comes a little early as the second it ends", () => {
    expect(waitingLine(0)).toBe("Waiting for the model's first token… 0 s");
    expect(waitingLine(985)).toBe("Waiting for the model's first token… 1 s");
    expect(waitingLine(1_990)).toBe("Waiting for the model's first token… 2 s");
    expect(waitingLine(42_010)).toBe("Waiting for the model's first token… 42 s");
  });
});
