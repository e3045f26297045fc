/**
 * The line a running job shows while the model has sent nothing yet: how long it has waited,
 * ticking each second ("Waiting for the model's first token… 42 s"), so that a model that hangs
 * is seen to, and can be cancelled or left to its timeout (model.timeoutSeconds). After a failed
 * request (`retry`): the time left before it is sent again, then the wait for its first token.
 */
import { useNow } from "./use-now.ts";

export function waitingText(seconds: number): string {
  return `Waiting for the model's first token… ${seconds} s`;
}

/** `since`: when the request was (or, after a failure, will be) sent, as Date.now() ms. */
export function WaitingForModel({ since, retry }: { since: number; retry?: string | undefined }) {
  const now = Math.max(useNow(), Date.now());
  const waited = waitingText(Math.max(0, Math.floor((now - since) / 1000)));
  let text = waited;
  if (retry !== undefined) {
    text = now < since ? `${retry}; retrying in ${Math.ceil((since - now) / 1000)} s…` : `${retry}; sent again. ${waited}`;
  }
  return <span data-testid="waiting-for-model">{text}</span>;
}
