import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

// llhttp's codes for what Node's HTTP parser refuses before any handler runs.
const STATUS_OF_PARSER_ERROR: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431, // headers or request line over --max-http-header-size (16 KB)
  HPE_REQUEST_TIMEOUT: 408,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

const MESSAGE_OF_STATUS: Record<number, string> = {
  400: "Bad request",
  408: "Request timeout",
  431: "Request header fields too large",
};

/** A complete HTTP/1.1 response with the flat JSON error body; the connection closes after it. */
export function rawErrorResponse(status: number): string {
  const body = JSON.stringify({ error: MESSAGE_OF_STATUS[status] ?? STATUS_CODES[status] ?? "Error" });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}\r\n` +
    "Content-Type: application/json\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    "Connection: close\r\n\r\n" +
    body
  );
}

export const MISSING_HOST = "Missing Host header";

/**
 * The check Node makes itself with `requireHostHeader` (its default), which answers a bare 400
 * with an empty body: an HTTP/1.1 request without a Host header is 400 with the flat JSON body.
 * That includes a Host past Node's header-count limit (`maxHeadersCount`, 2000), which Node
 * drops with every header after the limit. Serve with `requireHostHeader: false` and put this
 * before the app.
 */
export function answerMissingHostAsJson<L extends (request: IncomingMessage, response: ServerResponse) => void>(
  next: L,
): L {
  return ((request: IncomingMessage, response: ServerResponse) => {
    if (request.headers.host === undefined && request.httpVersionMajor === 1 && request.httpVersionMinor >= 1) {
      const body = JSON.stringify({ error: MISSING_HOST });
      response.shouldKeepAlive = false;
      response.writeHead(400, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        connection: "close",
      });
      response.end(body);
      return;
    }
    next(request, response);
  }) as L;
}

/**
 * Node answers requests its parser refuses (431 for oversized headers or URLs, 400 for too many
 * headers, a NUL in a header, Content-Length with Transfer-Encoding, …) with an empty body. This
 * answers them with the flat `{"error": "..."}` body of every other error, then closes.
 */
export function answerClientErrorsAsJson(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // The peer is gone, or a response is already under way on this socket: nothing to answer.
    const busy = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (error.code === "ECONNRESET" || !socket.writable || busy) {
      socket.destroy();
      return;
    }
    const status = STATUS_OF_PARSER_ERROR[error.code ?? ""] ?? 400;
    socket.end(rawErrorResponse(status));
  });
}
