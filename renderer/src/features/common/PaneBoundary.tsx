/**
 * A React error boundary around one pane of the app: when the pane throws while rendering, that
 * pane alone shows what failed, the error's message (selectable, no stack) and Try again; the rest
 * of the app keeps working. It clears itself when one of `resetKeys` changes (another session or entry).
 */
import { Component, type ErrorInfo, type ReactNode } from "react";
import "./pane-boundary.css";

interface Props {
  /** What could not be drawn, as a sentence: "The LLM view could not be drawn for this entry." */
  failure: string;
  /** The pane is drawn afresh when any of these changes (compared with Object.is). */
  resetKeys?: readonly unknown[];
  /** Try again also calls this (e.g. to fetch the pane's data again) before drawing the pane anew. */
  onRetry?: () => void;
  children: ReactNode;
}

interface State {
  error: unknown;
  failed: boolean;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

export class PaneBoundary extends Component<Props, State> {
  override state: State = { error: null, failed: false };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error, failed: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    // Once per failure, with where in the pane it happened (the page shows no stack).
    console.error(`Canopy: ${this.props.failure}`, error, info.componentStack ?? "");
  }

  override componentDidUpdate(previous: Props): void {
    if (!this.state.failed) return;
    const before = previous.resetKeys ?? [];
    const now = this.props.resetKeys ?? [];
    const changed = before.length !== now.length || now.some((key, index) => !Object.is(key, before[index]));
    if (changed) this.setState({ error: null, failed: false });
  }

  private readonly retry = () => {
    this.props.onRetry?.();
    this.setState({ error: null, failed: false });
  };

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    return (
      <div className="pane-failure" role="alert" data-testid="pane-failure">
        <p className="pane-failure-title">{this.props.failure}</p>
        <p className="pane-failure-error">
          Error: <code className="pane-failure-message">{messageOf(this.state.error)}</code>
        </p>
        <button type="button" onClick={this.retry}>
          Try again
        </button>
      </div>
    );
  }
}
