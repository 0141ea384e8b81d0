/** Words too common to tell passages or datanets apart. */
export const STOP_WORDS = new Set(
  (
    "a an and are as at be been but by can could do does did for from has have how i if in into is it its " +
    "me my of on or our so than that the their them then there these they this to us was we were what when " +
    "where which who why will with would you your yours about after all also any each get got just more most " +
    "no not only other out over same should some such up very via please tell explain know want"
  ).split(" "),
);

/** MiniSearch `processTerm`: lower-case, drop stop words and one-letter terms. */
export function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (lower.length < 2 || STOP_WORDS.has(lower)) return null;
  return lower;
}
