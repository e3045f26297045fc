/**
 * The line a running job shows while the model has sent nothing yet: how long it has waited,
 * ticking each second ("Waiting for the model's first token… 42 s"), so that a model that hangs
 * is seen to, and can be cancelled or left to its timeout (model.timeoutSeconds).
 */
import { useEffect, useState } from "react";

/** Whole seconds since `since` (Date.now() ms), counted again each second. */
function useSecondsSince(since: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return Math.max(0, Math.floor((now - since) / 1000));
}

export function waitingText(seconds: number): string {
  return `Waiting for the model's first token… ${seconds} s`;
}

export function WaitingForModel({ since }: { since: number }) {
  const seconds = useSecondsSince(since);
  return <span data-testid="waiting-for-model">{waitingText(seconds)}</span>;
}
