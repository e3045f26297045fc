/**
 * Shape of one schema migration. Migrations are plain synchronous functions over the open
 * connection; the runner wraps all pending ones in a single transaction.
 */
import type { Database } from "better-sqlite3";

export interface Migration {
  /** Schema version this migration produces; versions are consecutive from 1. */
  version: number;
  name: string;
  up(db: Database): void;
}
