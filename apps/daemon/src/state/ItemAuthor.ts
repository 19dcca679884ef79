/**
 * The author of a stored item, read from its source event: kept in its own column (`warden_items.author`)
 * so `warden erase --author` finds every item of an author through an index.
 */

/** The author identifier of a stored event (JSON text), if any; cheap when there is no author. */
export const authorOf = (event: string): string | undefined => {
  if (!event.includes('"author"')) return undefined
  try {
    const id = (JSON.parse(event) as { author?: { identifier?: unknown } }).author?.identifier
    return typeof id === "string" ? id : undefined
  } catch {
    return undefined
  }
}
