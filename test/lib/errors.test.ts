import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { ApiError, Problem } from "../../src/lib/errors";

describe("ApiError.from", () => {
  it.each([
    [400, "bad_request"],
    [401, "unauthorized"],
    [403, "forbidden"],
    [404, "not_found"],
    [405, "method_not_allowed"],
    [413, "payload_too_large"],
    [415, "unsupported_media_type"],
    [422, "validation_failed"],
    [429, "rate_limited"],
    [418, "bad_request"],
    [451, "bad_request"],
  ] as const)("keeps a %i HTTPException's status and names it %s", (status, code) => {
    const problem = ApiError.from(new HTTPException(status, { message: "Nope." })).toProblem("req-1");
    expect(problem).toMatchObject({ status, code, detail: "Nope.", requestId: "req-1" });
    expect(Problem.safeParse(problem).success).toBe(true);
  });

  it("never repeats a 5xx's message", () => {
    const problem = ApiError.from(new HTTPException(503, { message: "db password is hunter2" })).toProblem();
    expect(problem).toMatchObject({ status: 500, code: "internal_error" });
    expect(problem.detail).not.toContain("hunter2");
  });

  it("is an HTTPException whose response is the problem", async () => {
    const error = new ApiError("topic_not_found", "No topic.");
    expect(error).toBeInstanceOf(HTTPException);
    const res = error.getResponse();
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ code: "topic_not_found", detail: "No topic." });
  });
});
