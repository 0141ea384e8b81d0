import { STATUS_CODES, type Server } from "node:http";
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
