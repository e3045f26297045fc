// A small live session for the compaction-plan e2e tests (plan-follow-session, plan-follow-failures):
// turns of one user and one assistant message of 120 words each, so a few turns are enough for a
// plan with something to summarize under a small keep-recent figure.

export interface PlanSession {
  /** The header line. */
  header: string;
  /** A message line: `role`'s text, timestamped `s` seconds after the session's start. */
  line(id: string, parentId: string | null, role: "user" | "assistant", s: number): string;
  /** Turn `n`: u<n> (child of a<n-1>) and a<n>. */
  turn(n: number): string[];
}

export function planSession(id: string, cwd: string, startIso: string): PlanSession {
  const t0 = Date.parse(startIso);
  const words = (n: number, s: number) =>
    Array.from({ length: 120 }, (_, i) => `word${(i * 7 + n + s) % 97}`).join(" ");
  const line = (entryId: string, parentId: string | null, role: "user" | "assistant", s: number) =>
    JSON.stringify({
      type: "message",
      id: entryId,
      parentId,
      timestamp: new Date(t0 + s * 1000).toISOString(),
      message:
        role === "user"
          ? { role, content: [{ type: "text", text: words(1, s) }], timestamp: t0 + s * 1000 }
          : {
              role,
              content: [{ type: "text", text: words(2, s) }],
              timestamp: t0 + s * 1000,
              stopReason: "stop",
            },
    });
  const turn = (n: number) => [
    line(`u${n}`, n === 1 ? null : `a${n - 1}`, "user", 2 * n),
    line(`a${n}`, `u${n}`, "assistant", 2 * n + 1),
  ];
  const header = JSON.stringify({
    type: "session",
    version: 3,
    id,
    timestamp: new Date(t0).toISOString(),
    cwd,
  });
  return { header, line, turn };
}
