/** Placeholder while the contract is being written. */
export const placeholder = true
