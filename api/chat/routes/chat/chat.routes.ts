import { z } from "@hono/zod-openapi";
import { errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { CHAT_MODES } from "../../services/assistant/classifier";
import { chatRoutes } from "../kinds";

const route = chatRoutes(["Chat"]);

export const MESSAGE_MAX = 4_000;

const SESSION_EXAMPLE = "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b";
const QUESTION_EXAMPLE = "How are a pod's emissions split between its owner and voters?";
const ANSWER_EXAMPLE =
  "After an epoch closes, the pod's share of its datanet's emissions is split: **50 %** to the pod owner, " +
  "the rest to its up-voters in proportion to their votes.";
const SOURCE_EXAMPLE = {
  source: "docs/chat-server.md",
  title: "Chat server (agent API)",
  section: "Emissions (`GET /pods/{podId}/emissions`, `POST /pods/{podId}/emissions/claim`)",
};

const ChatRequest = z
  .object({
    message: z
      .string()
      .max(MESSAGE_MAX)
      .refine((value) => value.trim().length > 0, "must not be empty")
      // PostgreSQL text cannot hold NUL: refuse it here (400) rather than fail on insert
      .refine((value) => !value.includes("\u0000"), "must not contain NUL characters")
      .openapi({ description: "At most 4000 characters" }),
    sessionId: z.guid().optional().openapi({ description: "Continue this session; omit to start a new one" }),
  })
  .openapi("ChatRequest", { example: { message: QUESTION_EXAMPLE } });

const Source = z
  .object({
    source: z.string().openapi({ description: "Document (docs/<file>.md, the spec) or live record (live:<kind>)" }),
    title: z.string(),
    section: z.string(),
  })
  .openapi("ChatSource", { example: SOURCE_EXAMPLE });

const ChatResponse = z
  .object({
    sessionId: z.string().openapi({ format: "uuid" }),
    response: z.string().openapi({ description: "Markdown" }),
    sources: z.array(Source),
    mode: z.enum(CHAT_MODES),
  })
  .openapi("ChatResponse", {
    example: { sessionId: SESSION_EXAMPLE, response: ANSWER_EXAMPLE, sources: [SOURCE_EXAMPLE], mode: "rag" },
  });

const History = z
  .object({
    sessionId: z.string().openapi({ format: "uuid" }),
    messages: z.array(
      z.object({
        role: z.enum(["user", "assistant"]),
        content: z.string(),
        timestamp: z.string().openapi({ format: "date-time" }),
      }),
    ),
    createdAt: z.string().openapi({ format: "date-time" }),
    updatedAt: z.string().openapi({ format: "date-time", description: "Time of the last message" }),
  })
  .openapi("ChatHistory", {
    example: {
      sessionId: SESSION_EXAMPLE,
      messages: [
        { role: "user", content: QUESTION_EXAMPLE, timestamp: "2026-01-14T16:05:00.000Z" },
        { role: "assistant", content: ANSWER_EXAMPLE, timestamp: "2026-01-14T16:05:02.000Z" },
      ],
      createdAt: "2026-01-14T16:05:00.000Z",
      updatedAt: "2026-01-14T16:05:02.000Z",
    },
  });

const sessionNotFound = errorResponse("Unknown or expired session, or another wallet's");

export const chatRoute = route.wallet("post", "/chat", "chat", {
  summary: "Ask the assistant; the server picks the mode (rag, subnet-creation, minting, emissions)",
  request: { body: jsonBody(ChatRequest) },
  responses: {
    200: jsonContent(ChatResponse, "The assistant's reply"),
    400: errorResponse("Missing, empty or too long message, or a malformed sessionId"),
    404: sessionNotFound,
  },
});

export const historyRoute = route.wallet("get", "/chat/{sessionId}/history", "history", {
  summary: "A session's messages, readable only by the wallet that created it",
  request: {
    params: z.object({ sessionId: z.string().openapi({ param: { name: "sessionId", in: "path" }, format: "uuid" }) }),
  },
  responses: { 200: jsonContent(History, "The session's messages, oldest first"), 404: sessionNotFound },
});
