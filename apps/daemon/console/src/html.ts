/** Preact components written with htm's tagged templates: no JSX step, one small runtime. */
export { html, render } from "htm/preact"
export { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks"
