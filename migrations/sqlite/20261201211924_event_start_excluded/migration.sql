-- Written by hand: the schema engine redefines "Event" (a new table, the rows copied, the old one
-- dropped), and dropping it drops the triggers that keep "EventSearch" (20261125131520_event_search).
-- SQLite adds a NOT NULL column with a constant default in place, at the end, where the engine puts it.

-- AlterTable
ALTER TABLE "Event" ADD COLUMN "startExcluded" BOOLEAN NOT NULL DEFAULT false;

-- DropIndex
DROP INDEX "Event_list_idx";

-- DropIndex
DROP INDEX "Event_featured_localStart_idx";

-- DropIndex
DROP INDEX "Event_eventStatus_localStart_idx";

-- DropIndex
DROP INDEX "Event_id_list_idx";

-- CreateIndex
CREATE INDEX "Event_list_idx" ON "Event"("status", "localStart", "id", "localEnd", "hideFromListings", "startExcluded", "password", "featured", "eventStatus", "attendanceMode", "authorId");

-- CreateIndex
CREATE INDEX "Event_featured_localStart_idx" ON "Event"("featured", "localStart", "id", "status", "localEnd", "hideFromListings", "startExcluded", "password");

-- CreateIndex
CREATE INDEX "Event_eventStatus_localStart_idx" ON "Event"("eventStatus", "localStart", "id", "status", "localEnd", "hideFromListings", "startExcluded", "password", "featured", "attendanceMode", "authorId");

-- CreateIndex
CREATE INDEX "Event_id_list_idx" ON "Event"("id", "status", "localStart", "localEnd", "hideFromListings", "startExcluded", "password", "featured", "eventStatus", "attendanceMode", "authorId");
