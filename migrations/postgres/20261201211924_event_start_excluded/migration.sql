-- DropIndex
DROP INDEX "Event_list_idx";

-- DropIndex
DROP INDEX "Event_featured_localStart_idx";

-- DropIndex
DROP INDEX "Event_eventStatus_localStart_idx";

-- DropIndex
DROP INDEX "Event_id_list_idx";

-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "startExcluded" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "Event_list_idx" ON "Event"("status", "localStart", "id", "localEnd", "hideFromListings", "startExcluded", "password", "featured", "eventStatus", "attendanceMode", "authorId");

-- CreateIndex
CREATE INDEX "Event_featured_localStart_idx" ON "Event"("featured", "localStart", "id", "status", "localEnd", "hideFromListings", "startExcluded", "password");

-- CreateIndex
CREATE INDEX "Event_eventStatus_localStart_idx" ON "Event"("eventStatus", "localStart", "id", "status", "localEnd", "hideFromListings", "startExcluded", "password", "featured", "attendanceMode", "authorId");

-- CreateIndex
CREATE INDEX "Event_id_list_idx" ON "Event"("id", "status", "localStart", "localEnd", "hideFromListings", "startExcluded", "password", "featured", "eventStatus", "attendanceMode", "authorId");
