/**
 * The hash that decides whether an event is new: an unchanged redelivery has the same hash and costs no
 * API call; an edit has another and is analysed again as a new version.
 */
import { createHash } from "node:crypto"
import type { SourceEvent } from "@warden/connector"

/** SHA-256 (hex) of what is analysed: the content, and nothing the API does not see as content. */
export const of = (content: SourceEvent.Content): string => {
  const hash = createHash("sha256")
  switch (content.type) {
    case "text":
      hash.update(`text\u0000${content.text}`)
      break
    case "username":
      hash.update(`username\u0000${content.username}`)
      break
    case "image":
      hash.update("url" in content ? `image-url\u0000${content.url}` : `image-data\u0000${content.data}`)
      break
  }
  return hash.digest("hex")
}
