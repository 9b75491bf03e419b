/** Who is calling: the API token's access group and permission, as the token's guard resolves it (guard.ts). */
export interface Principal {
  tokenId: string;
  accessGroupId: number;
  accessGroupName: string;
  permission: "read" | "write";
}
