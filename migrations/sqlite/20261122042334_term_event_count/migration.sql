-- DropIndex
DROP INDEX "Event_status_localStart_id_idx";

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Term" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "taxonomy" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "eventCount" INTEGER NOT NULL DEFAULT 0,
    "parentId" INTEGER,
    CONSTRAINT "Term_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Term" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Term" ("description", "id", "name", "parentId", "slug", "taxonomy") SELECT "description", "id", "name", "parentId", "slug", "taxonomy" FROM "Term";
DROP TABLE "Term";
ALTER TABLE "new_Term" RENAME TO "Term";
CREATE INDEX "Term_taxonomy_name_idx" ON "Term"("taxonomy", "name");
CREATE INDEX "Term_parentId_idx" ON "Term"("parentId");
CREATE UNIQUE INDEX "Term_taxonomy_slug_key" ON "Term"("taxonomy", "slug");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "Event_list_idx" ON "Event"("status", "localStart", "id", "localEnd", "hideFromListings");

-- Backfill the stored counts (from here on every event write keeps them exact).
UPDATE "Term" SET "eventCount" = (
    SELECT COUNT(*) FROM "EventTerm" JOIN "Event" ON "Event"."id" = "EventTerm"."eventId"
    WHERE "EventTerm"."termId" = "Term"."id" AND "Event"."status" = 'publish'
);
