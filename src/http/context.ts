import type { Context } from "hono";
import type { Database, RoundTripCounter } from "../db/client";
import type { Env } from "../env";
import type { Principal } from "../rate-limits/principal";
import type { RequestState } from "./request-state";

export interface AppEnv {
  Bindings: Env;
  Variables: {
    /** This request's path: its D1 handle (primary or session), its not-found retry, its counters (./request-state.ts). */
    request: RequestState;
    requestId: string;
    db: Database;
    roundTrips: RoundTripCounter;
    principal: Principal;
  };
}

export type AppContext = Context<AppEnv>;
