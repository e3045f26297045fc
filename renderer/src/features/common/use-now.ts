/**
 * The time now (Date.now()), read again each second while the component is on screen: for lines
 * that count seconds ("Loading the session tree… 3 s", "Waiting for the model's first token… 42 s").
 */
import { useEffect, useState } from "react";

export function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}
