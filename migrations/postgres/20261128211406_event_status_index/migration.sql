-- CreateIndex
CREATE INDEX "Event_eventStatus_localStart_idx" ON "Event"("eventStatus", "localStart", "id", "status", "localEnd", "hideFromListings", "password", "featured", "attendanceMode", "authorId");
