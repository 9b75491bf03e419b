/** Who is calling: the API token's access group and permission. */
export interface Principal {
  tokenId: string;
  accessGroupId: number;
  accessGroupName: string;
  permission: "read" | "write";
}
