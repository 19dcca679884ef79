/**
 * What the types catch: typos in answer fields and in open-enum names (classifications, severities),
 * while a name the client does not know yet still fits once cast. Checked by `tsc` alone (the
 * package's typecheck includes `test/`): each `@ts-expect-error` fails the typecheck if its line
 * compiles. Not a vitest file: at run time there is nothing to check.
 */
import type { TextClassificationName } from "@warden/core"
import type { TextFeedbackInput } from "../src/FeedbackV1.ts"
import type { Warden } from "../src/Warden.ts"

const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"

/** Never called: only type-checked. */
export const typeChecks = async (warden: Warden) => {
  const answer = await warden.analyze.text({ channelId: CHANNEL, text: "hi" })
  // @ts-expect-error a misspelt field of the answer
  void answer.textAnalysis?.sevrity
  // assignments are checked (an `===` comparison is not: TypeScript lets a string literal be compared with the brand)
  // @ts-expect-error a misspelt severity
  const severity: NonNullable<typeof answer.textAnalysis>["severity"] = "HIHG"
  void severity
  // @ts-expect-error a misspelt classification
  void answer.textAnalysis?.classifications?.includes("INSULTT")
  void answer.textAnalysis?.classifications?.includes("INSULT")
  // fields the types do not name are under raw
  void answer.raw.somethingNew
  // @ts-expect-error a misspelt classification name to remove
  const typo: TextFeedbackInput = { analyzeRequest: "{}", classificationsToRemove: ["INSULTT"] }
  const known: TextFeedbackInput = { analyzeRequest: "{}", classificationsToRemove: ["INSULT"] }
  const other: TextFeedbackInput = {
    analyzeRequest: "{}",
    classificationsToRemove: ["SPAM" as TextClassificationName]
  }
  return [typo, known, other]
}
