/**
 * A failure said in one line where it happened, announced to screen readers (role="alert");
 * nothing while there is none. Every panel and form shows its errors with it.
 */
export function ErrorLine({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p className="error" role="alert">
      {message}
    </p>
  );
}
