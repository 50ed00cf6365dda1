/**
 * Frames of the control channel (docs/hud-protocol.md): the JSON-RPC 2.0 envelope
 * and the result of each session method. Objects are loose so that fields a
 * newer SDK adds pass through untouched (the actor's result frame must reach
 * the verifier unchanged).
 */
import { z } from 'zod';

export const JsonRpcError = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type JsonRpcError = z.infer<typeof JsonRpcError>;

const Id = z.union([z.number(), z.string()]).nullable();

/** A response carries exactly one of `result` / `error`; callers check which key is present. */
export const ResponseEnvelope = z.object({ jsonrpc: z.literal('2.0'), id: Id });

export const NotificationFrame = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string(),
  params: z.unknown().optional(),
});
export type NotificationFrame = z.infer<typeof NotificationFrame>;

export const Binding = z.looseObject({
  name: z.string(),
  protocol: z.string(),
  url: z.string(),
  params: z.record(z.string(), z.unknown()).default({}),
});
export type Binding = z.infer<typeof Binding>;

export const HelloResult = z.looseObject({
  session_id: z.string(),
  env: z.looseObject({ name: z.string(), version: z.string().optional() }),
  bindings: z.array(Binding).default([]),
});
export type HelloResult = z.infer<typeof HelloResult>;

export const TaskListResult = z.looseObject({
  tasks: z.array(
    z.looseObject({
      id: z.string(),
      description: z.string().optional(),
      args: z.unknown().optional(),
    }),
  ),
});
export type TaskListResult = z.infer<typeof TaskListResult>;

/** The first yield: `{"prompt": ...}` plus whatever else the template sent. */
export const PromptFrame = z.looseObject({ prompt: z.unknown() });
export type PromptFrame = z.infer<typeof PromptFrame>;

/**
 * The second yield: a numeric score plus optional details and task fields.
 * The SDK's server sends unset fields as null (docs/sdk-compatibility.md).
 */
export const GradeFrame = z.looseObject({
  score: z.number(),
  subscores: z.array(z.unknown()).nullish(),
  info: z.unknown().optional(),
  content: z.unknown().optional(),
  isError: z.boolean().nullish(),
  done: z.boolean().nullish(),
});
export type GradeFrame = z.infer<typeof GradeFrame>;

export const CancelResult = z.looseObject({ cancelled: z.boolean() });
export const ByeResult = z.looseObject({ goodbye: z.boolean() });

/** Standard and protocol-specific JSON-RPC error codes. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  templateError: -32000,
} as const;
