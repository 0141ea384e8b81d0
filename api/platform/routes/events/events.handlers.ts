/** Event stream handler: validates, takes a stream slot, then streams until the client leaves. */
import { streamSSE } from "hono/streaming";
import { badRequest, HttpError } from "../../../http/errors";
import type { PlatformHandler } from "../../app-services";
import { parseResume, runEventStream, type StreamSignal, topicsOf } from "../../services/events";
import type * as routes from "./events.routes";

export const streamEvents: PlatformHandler<typeof routes.streamEventsRoute> = async (c) => {
  const { datanet, pod, wallet, lastEventId } = c.req.valid("query");
  const resume = parseResume(c.req.header("last-event-id") || lastEventId);
  if (!resume) throw badRequest("Last-Event-ID must be 0 or an event id such as 212-1-3b1d6b0e6e1f44a2");
  const ctx = c.get("services");
  const release = ctx.eventStreams.acquire();
  if (!release) throw new HttpError(503, "Too many event streams; retry later", { "Retry-After": "5" });
  const config = ctx.platform.config.events;
  return streamSSE(c, async (stream) => {
    // the current wait's early end: a new wait replaces it, an abort ends it (one timer per stream)
    let wake: (() => void) | undefined;
    stream.onAbort(() => {
      release();
      wake?.();
    });
    const signal: StreamSignal = {
      get aborted() {
        return stream.aborted || stream.closed;
      },
      wait: (ms) =>
        new Promise<void>((resolve) => {
          wake?.();
          if (stream.aborted) return resolve();
          const timer = setTimeout(done, ms);
          function done() {
            clearTimeout(timer);
            if (wake === done) wake = undefined;
            resolve();
          }
          wake = done;
        }),
    };
    try {
      await runEventStream({
        db: ctx.db,
        viewsSchema: ctx.viewsSchema,
        feed: ctx.eventFeed,
        topics: topicsOf({ datanet, pod, wallet }),
        resume,
        pollIntervalMs: config.pollIntervalMs,
        keepAliveMs: config.keepAliveMs,
        signal,
        logger: c.get("logger"),
        write: (message) =>
          "comment" in message
            ? stream.write(`: ${message.comment}\n\n`).then(() => undefined)
            : stream.writeSSE(message),
      });
    } finally {
      wake?.();
      release();
    }
  });
};
