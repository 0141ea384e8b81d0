import { pino, type DestinationStream, type Logger, type LevelWithSilent } from "pino";
import pretty from "pino-pretty";
import { processEnv } from "../api/env";

export type LogFormat = "pretty" | "json";

/** `LOG_FORMAT` when set, else pretty in a terminal and JSON lines otherwise (files, pipes, CI). */
export function logFormatFrom(env: NodeJS.ProcessEnv = processEnv()): LogFormat {
  if (env.LOG_FORMAT === "json" || env.LOG_FORMAT === "pretty") return env.LOG_FORMAT;
  return process.stdout.isTTY ? "pretty" : "json";
}

/**
 * One logger factory for every process of the project (launcher, API, operator commands). JSON
 * lines go to stdout, written synchronously (pino's default), unless `destination` says otherwise
 * (the read bench writes them to /dev/null).
 */
export function createLogger(
  options: { level?: LevelWithSilent; format?: LogFormat; bindings?: Record<string, unknown>; destination?: DestinationStream } = {},
): Logger {
  const base = { level: options.level ?? "info", base: options.bindings ?? {} };
  if ((options.format ?? logFormatFrom()) === "json") return options.destination ? pino(base, options.destination) : pino(base);
  return pino(
    base,
    pretty({ sync: true, singleLine: true, colorize: process.stdout.isTTY, ignore: "pid,hostname,requestId", translateTime: "HH:MM:ss" }),
  );
}
