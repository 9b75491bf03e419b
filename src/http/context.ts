import type { Context } from "hono";
import type { Database, RoundTripCounter } from "../db/client";
import type { Env } from "../env";
import type { RequestState } from "./request-state";

/** Who is calling: the API token's access group and permission. */
export interface Principal {
  tokenId: string;
  accessGroupId: number;
  accessGroupName: string;
  permission: "read" | "write";
}

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
