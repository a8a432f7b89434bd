-- DropIndex
DROP INDEX "Event_list_idx";

-- DropIndex
DROP INDEX "Event_featured_localStart_idx";

-- DropIndex
DROP INDEX "EventVenue_venueId_idx";

-- DropIndex
DROP INDEX "EventOrganizer_organizerId_idx";

-- DropIndex
DROP INDEX "EventTerm_termId_idx";

-- CreateIndex
CREATE INDEX "Event_list_idx" ON "Event"("status", "localStart", "id", "localEnd", "hideFromListings", "password", "featured", "eventStatus", "attendanceMode", "authorId");

-- CreateIndex
CREATE INDEX "Event_featured_localStart_idx" ON "Event"("featured", "localStart", "id", "status", "localEnd", "hideFromListings", "password");

-- CreateIndex
CREATE INDEX "EventVenue_venueId_idx" ON "EventVenue"("venueId", "eventId");

-- CreateIndex
CREATE INDEX "EventOrganizer_organizerId_idx" ON "EventOrganizer"("organizerId", "eventId");

-- CreateIndex
CREATE INDEX "EventTerm_termId_idx" ON "EventTerm"("termId", "eventId");
