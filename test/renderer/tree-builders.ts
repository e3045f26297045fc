// Builders of session:tree nodes for the canvas tests: one call per entry, timestamps follow the
// call order so that "by time" equals "by creation".
import type { TreeNodeDto } from "../../core/api/dto.ts";

const MESSAGE_ROLES = new Set(["user", "assistant", "toolResult", "bashExecution", "custom"]);

export class TreeBuilder {
  readonly nodes: TreeNodeDto[] = [];
  private clock = Date.UTC(2026, 0, 1);

  add(id: string, parentId: string | null, kind = "user", extra: Partial<TreeNodeDto> = {}): TreeNodeDto {
    this.clock += 1000;
    const node: TreeNodeDto = {
      id,
      parentId,
      line: this.nodes.length + 2,
      type: MESSAGE_ROLES.has(kind) ? "message" : kind,
      kind,
      text: `${kind} ${id}`,
      tokens: 10,
      timestamp: new Date(this.clock).toISOString(),
      ...(kind === "assistant" ? { stopReason: "stop" } : {}),
      ...extra,
    };
    this.nodes.push(node);
    return node;
  }

  /** A linear run of alternating user/assistant entries under `parentId`; returns the last id. */
  chain(prefix: string, parentId: string | null, length: number): string {
    let parent = parentId;
    for (let i = 0; i < length; i++) {
      const id = `${prefix}${i}`;
      this.add(id, parent, i % 2 === 0 ? "user" : "assistant");
      parent = id;
    }
    return parent as string;
  }
}

/** A deterministic pseudo-random generator (tests must not depend on Math.random). */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}
