import { ApiError } from "../http/errors";

/**
 * The hierarchy rule, in one place: a parent is strictly above its child
 * (docs/api-contract.md, "Hierarchy"). Levels are ordered root first, so a level is
 * above another when its position is smaller.
 */
export function isAbove(parentPosition: number, childPosition: number): boolean {
  return parentPosition < childPosition;
}

export interface Level {
  name: string;
  position: number;
}

/** A new parent for a customer at `level`: same access group, strictly above. */
export function checkNewParent(
  parent: { accessGroupId: number | null; levelPosition: number },
  accessGroupId: number,
  level: Level,
  levelDefaultedToRoot: boolean,
): void {
  if (parent.accessGroupId !== accessGroupId) {
    throw new ApiError("parent_access_group_mismatch", "The parent belongs to another access group.", "parent_provided_id");
  }
  if (!isAbove(parent.levelPosition, level.position)) {
    const message = levelDefaultedToRoot
      ? `Without hierarchy_level_name the customer is at the root level '${level.name}', which cannot have a parent; give a level below the parent's.`
      : `The parent must be at a strictly higher hierarchy level than '${level.name}'.`;
    throw new ApiError("parent_not_higher_level", message, "parent_provided_id");
  }
}

/** A customer keeping its parent while moving to `level` stays below that parent. */
export function checkKeptParent(parent: { providedId: string; levelPosition: number }, level: Level): void {
  if (!isAbove(parent.levelPosition, level.position)) {
    throw new ApiError(
      "parent_not_higher_level",
      `The current parent '${parent.providedId}' is not above level '${level.name}'.`,
      "hierarchy_level_name",
    );
  }
}

/** A customer moving to `level` stays above all its children (`topChildPosition`: the highest of them). */
export function checkChildren(topChildPosition: number | null | undefined, level: Level): void {
  if (topChildPosition !== null && topChildPosition !== undefined && !isAbove(level.position, topChildPosition)) {
    throw new ApiError("parent_not_higher_level", `This customer has children at or above level '${level.name}'.`, "hierarchy_level_name");
  }
}
