/**
 * Compile-time checks of the Durable Object RPC boundary, run by `tsc -p .` (vitest does not
 * collect this file). Cloudflare's stub types turn a method's result into `never` when it is not
 * serialisable as written (any `unknown` inside it), and `never` is assignable to every type: the
 * client would compile whatever it declared the object answers. So: no stub result is `never`,
 * and each one the client hands back is assignable to what the client declares.
 */
import type { TriggerStore } from "../../src/durable-objects/client/trigger-store";
import type { DigestObject, FanOutCoordinator, InboxSocket, ThrottleObject, TriggerLedger } from "../../src/index";

type IsNever<T> = [T] extends [never] ? true : false;
type Expect<T extends true> = T;

/** Names of the stub's methods whose result the stub types turned into `never`. */
type NeverResults<Stub> = {
  [K in keyof Stub]-?: Stub[K] extends (...args: never[]) => infer R ? (IsNever<Awaited<R>> extends true ? K : never) : never;
}[keyof Stub];

/** What a stub's method resolves to. */
type Answer<Stub, K extends keyof Stub> = Stub[K] extends (...args: never[]) => infer R ? Awaited<R> : never;
/** What a client method declares it resolves to. */
type Declared<F> = F extends (...args: never[]) => infer R ? Awaited<R> : never;
/**
 * The object's answer is a real type, fits the client's declaration, and keeps every case the
 * declaration names: the stub types drop a union member they cannot serialise (a cancel's
 * `cancelled` outcome, a digest's `{ job }`), leaving a narrower answer that would still fit.
 * Objects come back `Disposable`, hence the intersection.
 */
type Fits<A, D> = IsNever<A> extends true ? false : [A] extends [D] ? ([D & Disposable] extends [A] ? true : false) : false;

type Ledger = DurableObjectStub<TriggerLedger>;
type Coordinator = DurableObjectStub<FanOutCoordinator>;
type Digest = DurableObjectStub<DigestObject>;
type Throttle = DurableObjectStub<ThrottleObject>;
type CoordinatorClient = ReturnType<TriggerStore["coordinatorOf"]>;
type DigestClient = ReturnType<TriggerStore["digest"]>;

export type NoNeverResults = [
  Expect<IsNever<NeverResults<Ledger>>>,
  Expect<IsNever<NeverResults<Coordinator>>>,
  Expect<IsNever<NeverResults<Digest>>>,
  Expect<IsNever<NeverResults<Throttle>>>,
  Expect<IsNever<NeverResults<DurableObjectStub<InboxSocket>>>>,
];

export type ClientDeclarationsHold = [
  Expect<Fits<Answer<Ledger, "accept">[number], Declared<TriggerStore["accept"]>[number]>>,
  Expect<Fits<Answer<Ledger, "snapshots">, Declared<TriggerStore["snapshots"]>>>,
  Expect<Fits<Answer<Ledger, "run">, Declared<TriggerStore["run"]>>>,
  Expect<Fits<Answer<Coordinator, "run">, Declared<TriggerStore["run"]>>>,
  Expect<Fits<Answer<Ledger, "fanOut">, Declared<TriggerStore["fanOut"]>>>,
  Expect<Fits<Answer<Ledger, "finish">, Declared<TriggerStore["finish"]>>>,
  Expect<Fits<Answer<Ledger, "cancel">, Declared<TriggerStore["cancel"]>>>,
  Expect<Fits<Exclude<Answer<Ledger, "waitingSteps">, null>, Declared<TriggerStore["waits"]>>>,
  Expect<Fits<Exclude<Answer<Ledger, "recordedRuns">, null>, Exclude<Declared<TriggerStore["runs"]>, null>>>,
  Expect<Fits<Answer<Coordinator, "recordedRuns">, Declared<CoordinatorClient["recordedRuns"]>>>,
  Expect<Fits<Answer<Coordinator, "eraseSubscriber">, Declared<TriggerStore["eraseSubscriber"]>>>,
  Expect<Fits<Answer<Digest, "erase">, Declared<TriggerStore["eraseSubscriber"]>>>,
  Expect<Fits<Answer<Coordinator, "init">, Declared<CoordinatorClient["init"]>>>,
  Expect<Fits<Answer<Coordinator, "cancel">, Declared<CoordinatorClient["cancel"]>>>,
  Expect<Fits<Answer<Coordinator, "counts">, Declared<CoordinatorClient["counts"]>>>,
  Expect<Fits<Answer<Coordinator, "waitingSteps">, Declared<CoordinatorClient["waitingSteps"]>>>,
  Expect<Fits<Answer<Coordinator, "poke">, Declared<CoordinatorClient["poke"]>>>,
  Expect<Fits<Answer<Digest, "add">, Declared<DigestClient["add"]>>>,
  Expect<Fits<Answer<Digest, "remove">, Declared<DigestClient["remove"]>>>,
  Expect<Fits<Answer<Digest, "pending">, Declared<DigestClient["pending"]>>>,
  Expect<Fits<Answer<Digest, "collected">, Declared<DigestClient["collected"]>>>,
  Expect<Fits<Answer<Digest, "resume">, Declared<DigestClient["resume"]>>>,
  Expect<Fits<Answer<Throttle, "take">, Declared<TriggerStore["takeThrottle"]>>>,
];
