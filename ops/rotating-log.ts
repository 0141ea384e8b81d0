import fs from "node:fs";

/** Default cap of a log file the launcher keeps (the indexer's in `.data/`). */
export const DEFAULT_LOG_FILE_MAX_BYTES = 10 * 1024 * 1024;

/**
 * An append-only log file that never grows past `maxBytes`: once it would, it is renamed to
 * `<file>.1` (replacing the previous one) and a new file begun, so at most twice the cap is kept.
 * Written synchronously: lines are short and a crash must not lose the last ones.
 */
export class RotatingLogFile {
  private fd: number;
  private size: number;

  constructor(
    readonly file: string,
    readonly maxBytes = DEFAULT_LOG_FILE_MAX_BYTES,
  ) {
    this.fd = fs.openSync(file, "a");
    this.size = fs.fstatSync(this.fd).size;
  }

  write(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
    fs.writeSync(this.fd, line);
    this.size += bytes;
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  private rotate(): void {
    fs.closeSync(this.fd);
    fs.renameSync(this.file, `${this.file}.1`);
    this.fd = fs.openSync(this.file, "a");
    this.size = 0;
  }
}
