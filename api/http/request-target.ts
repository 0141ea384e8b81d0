/** A request target Hono's path is a plain slice of: no percent-escape, fragment or dot segment. */
const PLAIN_TARGET = /^\/[!$&-;=?-[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;

/**
 * Whether Hono reads a Node request target as it was sent: its path a plain slice of it, with no
 * percent-escape to decode, no character a URL parser would escape, no fragment and no dot segment.
 */
export function isPlainTarget(target: string): boolean {
  return PLAIN_TARGET.test(target) && !DOT_SEGMENT.test(target);
}
