const STORAGE_KEY = "clarion.apiKey";

/** The API key lives in this browser's localStorage only; it is sent to this Clarion and nowhere else. */
export const apiKeyStore = {
  get: (): string => localStorage.getItem(STORAGE_KEY) ?? "",
  set: (key: string): void => {
    if (key) localStorage.setItem(STORAGE_KEY, key);
    else localStorage.removeItem(STORAGE_KEY);
  },
};
