import { NONCE, secureHeaders } from "hono/secure-headers";
import { CONTENT_SECURITY_POLICY } from "../../contract/content-security-policy";

/** Security headers of a page the Worker renders; its inline script carries the response's nonce. */
export const pageHeaders = secureHeaders({
  contentSecurityPolicy: { ...CONTENT_SECURITY_POLICY, scriptSrc: [...CONTENT_SECURITY_POLICY.scriptSrc, NONCE] },
  xFrameOptions: "DENY",
  referrerPolicy: "no-referrer",
  xContentTypeOptions: true,
});
