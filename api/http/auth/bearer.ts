/** The credential of an `Authorization: Bearer <credential>` header (scheme case-insensitive), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header?.trim() ?? "")?.[1];
}
