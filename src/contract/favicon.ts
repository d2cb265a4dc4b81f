// Clarion's icon, one SVG for every page a browser shows: the Worker serves it at /favicon.svg
// (and /favicon.ico, which browsers ask for unprompted), and the dashboard's Pages build writes it
// beside its index. No imports, so the dashboard's build config can read it too.

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#4338ca"/><path fill="#fff" d="M16 5.5a1.5 1.5 0 0 1 1.5 1.5v.7a7.5 7.5 0 0 1 6 7.3v5.2l2.2 3.1c.4.6 0 1.2-.7 1.2H7c-.7 0-1.1-.6-.7-1.2l2.2-3.1V15a7.5 7.5 0 0 1 6-7.3V7A1.5 1.5 0 0 1 16 5.5ZM12.8 26h6.4a3.2 3.2 0 0 1-6.4 0Z"/></svg>
`;
