-- DropIndex
DROP INDEX "Event_status_localStart_id_idx";

-- AlterTable
ALTER TABLE "Term" ADD COLUMN     "eventCount" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "Event_list_idx" ON "Event"("status", "localStart", "id", "localEnd", "hideFromListings");

-- Backfill the stored counts (from here on every event write keeps them exact).
UPDATE "Term" SET "eventCount" = (
    SELECT COUNT(*) FROM "EventTerm" JOIN "Event" ON "Event"."id" = "EventTerm"."eventId"
    WHERE "EventTerm"."termId" = "Term"."id" AND "Event"."status" = 'publish'
);
