import type { Context } from "hono";
import type { Database, RoundTripCounter } from "../db/client";
import type { Env } from "../env";

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
    requestId: string;
    db: Database;
    roundTrips: RoundTripCounter;
    principal: Principal;
  };
}

export type AppContext = Context<AppEnv>;
