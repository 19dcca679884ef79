/**
 * What an erasure names (issue 16): the selector of item versions, who asked, the author selector a
 * command line or route gives, and the plan of an erasure by username. Apart from Erasure.ts so the
 * CLI and admin routes build selectors without the service.
 */
import { partsOf } from "./AuthorStore.ts"

/** Which item versions to erase. */
export type Selector =
  | { readonly _tag: "Reference"; readonly reference: string; readonly source?: string | undefined }
  /** An author by the platform's identifier alone, in one source or all (before author keys). */
  | { readonly _tag: "Author"; readonly author: string; readonly source?: string | undefined }
  /**
   * An author by key (`<platform>:<identifier>`), across every source of the platform: their items,
   * name, strikes and review statements. `sources` are the sources of that platform, where items
   * recorded before author keys are found by the identifier.
   */
  | { readonly _tag: "AuthorKey"; readonly key: string; readonly sources: ReadonlyArray<string> }
  /**
   * The items of one source recorded under a username (where that is all a platform gives): with their
   * author's name and strikes. Erase the keys they carry too, for the rest of those authors' records.
   */
  | { readonly _tag: "Username"; readonly username: string; readonly source: string }

/** Who asked for an erasure: a name (`cli:<user>@<host>`, a moderator, `admin-token`) and a role. */
export interface Actor {
  readonly name: string
  readonly role: string
}

/** An author erasure by username would erase. */
export interface UsernameAuthor {
  readonly key: string
  readonly items: number
  readonly sources: ReadonlyArray<string>
  readonly usernames: ReadonlyArray<string>
}

/** What erasing a username of a source would erase (the confirmation lists it). */
export interface UsernamePlan {
  readonly source: string
  readonly username: string
  readonly authors: ReadonlyArray<UsernameAuthor>
  /** Items of that name whose event named no identifier. */
  readonly withoutKey: number
}

/**
 * The selector an author given on the command line or in `DELETE /api/authors/{author}` names:
 * `<platform>:<identifier>` (a platform of `platforms`: every source of it), else, as before author
 * keys, an identifier (in `source`, or in every source). `platforms`: source id -> connector type.
 */
export const authorSelector = (
  author: string,
  source: string | undefined,
  platforms: ReadonlyMap<string, string>
): Selector => {
  const { platform } = partsOf(author)
  const known = new Set(platforms.values())
  if (known.has(platform) && (source === undefined || platforms.get(source) === platform))
    return {
      _tag: "AuthorKey",
      key: author,
      sources: [...platforms].filter(([, p]) => p === platform).map(([id]) => id)
    }
  return { _tag: "Author", author, source }
}
