/**
 * Where keyboard focus goes when the view changes: to the new view's heading on every navigation (a
 * screen reader reads where it landed; Tab goes on from there), or back to the row the moderator
 * opened when they return to the list. Without it focus stays on the link that was clicked, which the
 * new view removed: on the body, and the next Tab starts again from the top of the page.
 */
import { useEffect, useRef } from "./html.ts"

let navigated = false
let opened: string | undefined
let listHash = "#/"

/** The view is about to change (a link followed, Back, a sign-in): the next view takes focus. */
export const navigation = () => {
  navigated = true
}

/** Whether the view now mounting was reached by a navigation (and takes focus); asks once. */
const takeNavigation = (): boolean => {
  const was = navigated
  navigated = false
  return was
}

/**
 * The heading of a view: focused when the view is mounted by a navigation. The element needs
 * `tabindex="-1"` (focusable from script, not a Tab stop).
 */
export const useHeadingFocus = <E extends HTMLElement>() => {
  const heading = useRef<E>(null)
  useEffect(() => {
    if (takeNavigation()) heading.current?.focus()
  }, [])
  return heading
}

/**
 * The list's way back: when it is mounted by a navigation, the row the moderator had opened (the
 * link `find` returns for that key) takes focus, else the heading. Returns the heading's ref.
 */
export const useReturnFocus = <E extends HTMLElement>(find: (key: string) => HTMLElement | null | undefined) => {
  const heading = useRef<E>(null)
  useEffect(() => {
    if (!takeNavigation()) return
    const key = opened
    opened = undefined
    const row = key === undefined ? undefined : find(key)
    if (row !== null && row !== undefined) row.focus()
    else heading.current?.focus()
  }, [])
  return heading
}

/** A row of the list is being opened: focus comes back to it on return. */
export const rememberOpened = (key: string) => {
  opened = key
}

/** The list's address with its filters, for the way back from a decision (`#/?type=HATEFUL`). */
export const setListHash = (hash: string) => {
  listHash = hash
}

/** @see {@link setListHash} */
export const currentListHash = () => listHash
