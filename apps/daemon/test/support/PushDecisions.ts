/** What the push tests' source answers a check of an insult: its `insults` rule hides it, so `reject`. */
export const insultRejected = (reference: string) => ({
  decision: "reject",
  reference,
  version: 1,
  rule: "insults",
  actions: ["hide"],
  decidedBy: "verdict"
})
